package faults

// ModeRefuse: connections are refused (ECONNREFUSED), as when the server
// is not running. Toxiproxy: the proxy is stopped; healing restarts it.
const ModeRefuse = "refuse"

type refuse struct{}

func init() { RegisterMode(refuse{}) }

func (refuse) Name() string                     { return ModeRefuse }
func (refuse) Doc() string                      { return "connect refused at once (ECONNREFUSED); proxy stopped" }
func (refuse) Fields() []Field                  { return nil }
func (refuse) Validate(Fault) error             { return nil }
func (refuse) Simulate(Fault, *Exchange) Effect { return Effect{Verdict: Refuse} }

// Toxic: none — one-way refusal does not exist on TCP, the proxy stops.
func (refuse) Toxic(Fault) (string, map[string]any, bool) { return "", nil, false }
