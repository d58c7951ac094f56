package mooncake

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Scope is who reads a knob and where an operator sets it.
type Scope string

const (
	// ScopeEnv: a process environment variable read by the store client or
	// the transfer engine inside SGLang's process (or mooncake_client's).
	ScopeEnv Scope = "env"
	// ScopeMasterFlag: a mooncake_master command-line flag (gflags).
	ScopeMasterFlag Scope = "master-flag"
	// ScopeSGLang: a MOONCAKE_* variable / config key SGLang's
	// mooncake_store.py reads and passes to setup(); its parsing is
	// sglang/config.go's.
	ScopeSGLang Scope = "sglang"
)

// Parse is how a release turns a knob's text into a value.
type Parse string

const (
	// ParseAtoi / ParseAtoll: C's atoi/atoll — leading space, sign, the
	// leading digits; the rest is ignored and no digits read 0 ("1GB" is 1,
	// "0x10" is 0, "abc" is 0). Unsigned: the value is then stored in a
	// uint64, so a negative number wraps to a huge one.
	ParseAtoi  Parse = "atoi"
	ParseAtoll Parse = "atoll"
	ParseUAtol Parse = "atoll→uint64"
	// ParseStoll: GetEnvOr<T> (mooncake-store utils.h): empty → default;
	// std::stoll reads a leading number ("3abc" is 3) and throws on none,
	// which GetEnvOr catches → default, silently.
	ParseStoll Parse = "GetEnvOr/stoll"
	// ParseStoi: std::stoi without a catch: a value with no leading number
	// throws std::invalid_argument out of setup (pybind11: ValueError
	// "stoi"); with ParseStoiCaught the caller logs and keeps its default.
	ParseStoi       Parse = "stoi (uncaught)"
	ParseStoiCaught Parse = "stoi (caught)"
	// ParseStoiAbort: std::stoi without a catch inside globalConfig(),
	// which a static initializer runs when the module is imported: a value
	// with no leading number terminates the process (SIGABRT, "terminate
	// called after throwing an instance of 'std::invalid_argument'"; real
	// 0.3.9, MC_HANDSHAKE_LISTEN_BACKLOG).
	ParseStoiAbort Parse = "stoi (uncaught, at import)"
	// ParseFromChars: std::from_chars into an unsigned integer over the
	// whole text: no sign, no space, no unit; anything else, or a value
	// outside Min..Max, logs InvalidLog and keeps Default.
	ParseFromChars Parse = "from_chars"
	// ParseFromCharsInt: std::from_chars into an int over the whole text:
	// a sign '-' parses (then the range check), '+', space or a unit do
	// not (UnparsedLog, else InvalidLog, and Default).
	ParseFromCharsInt Parse = "from_chars (int)"
	// ParseStoullCaught: std::stoull in a try (tcp_transport.cpp's
	// MC_TCP_SLICE_SIZE): leading space, a sign, the leading digits ("4k"
	// is 4); a '-' number wraps mod 2⁶⁴ and is taken ("-1"); no digits or
	// past 2⁶⁴−1 logs UnparsedLog, outside Min..Max InvalidLog; the
	// default kept.
	ParseStoullCaught Parse = "stoull (caught)"
	// ParseTcpLanesAlias: tcp_transport.cpp's deprecated
	// MC_TCP_MAX_CONNECTIONS_PER_PEER: any value logs "<name> is
	// deprecated; use MC_TCP_LANES_PER_PEER", then parses as
	// ParseFromChars (parseBoundedTcpSetting), its InvalidLog on a second
	// line of Value.Log.
	ParseTcpLanesAlias Parse = "deprecated alias, from_chars"
	// ParseOneOrTrue: "1", or "true" in any case, is on; anything else is
	// off, silently (topology.cpp's MC_PATH_ROUNDROBIN).
	ParseOneOrTrue Parse = "1 or true"
	// ParseReadInt: Environ's ReadInt (main@3b5a594 environ.cpp:29-45,
	// integer_parser.h): the text trimmed of ASCII space, one optional
	// '+', then a whole int; anything else logs InvalidLog and keeps
	// Default.
	ParseReadInt Parse = "ReadInt"
	// ParsePresence: getenv(...) != nullptr — any value, "0" and "false"
	// included, turns it on.
	ParsePresence Parse = "presence"
	// ParseWords: "false", "0", "no", "off" (any case) off, anything else on.
	ParseWords Parse = "words"
	// ParseOnOff: "false", "0", "no", "off" off and "true", "1", "yes",
	// "on" on (any case); any other text logs InvalidLog and is on
	// (transfer_task.cpp's MC_STORE_MEMCPY: "defaulting to enabled").
	ParseOnOff Parse = "on/off words"
	// ParseChoice: one of Choices exactly, else InvalidLog and Default
	// (FileStorageConfig's backend descriptor).
	ParseChoice Parse = "one of words"
	// ParseGetBool: Environ::GetBool (environ.cpp v0.3.11:28-36): "1",
	// "true", "on", "yes" (any case) on, anything else off.
	ParseGetBool Parse = "GetBool"
	// ParseReadBool: Environ's ReadBool over TryParseBool (main@3b5a594
	// environ.cpp:78-93, bool_parser.h): the text trimmed of ASCII space,
	// then "1", "true", "yes", "on", "enable" on and "0", "false", "no",
	// "off", "disable" off ("1"/"0" exactly, the words in any case);
	// anything else, "" included, prints InvalidLog on stderr and keeps
	// Default.
	ParseReadBool Parse = "ReadBool"
	// ParsePresenceReadBool: getenv presence still decides (any value is
	// on), but Environ's constructor also ReadBools the name and prints
	// InvalidLog for text TryParseBool rejects, "" included (main@3b5a594
	// environ.cpp:188,196-197 next to transfer_engine_impl.cpp:209,297 and
	// config.cpp:477's getenv; real 0.3.13.post1, once, when the store
	// client is built).
	ParsePresenceReadBool Parse = "presence + ReadBool warning"
	// ParseNicPeerAffinity: config.cpp's parseNicPeerAffinity
	// (v0.3.12.post1 config.cpp:61-101): rules split at ';', each trimmed
	// of " \t\n\r", "local_hca=peer_hca[,peer_hca]"; a rule without '=',
	// with an empty local HCA or no peer HCA logs one WARNING of its own
	// and is dropped (Value.Log holds those lines joined by "\n", in
	// order), the others kept. Value.Int is the number of mappings kept
	// (one per local HCA: a later rule replaces an earlier one).
	ParseNicPeerAffinity Parse = "HCA affinity rules"
	// ParseString: the text as is.
	ParseString Parse = "string"
	// ParseGflagUint64 / ParseGflagInt64 / ParseGflagDouble: gflags'
	// strict parse of the whole value; anything else makes mooncake_master
	// exit 1 with "ERROR: illegal value 'V' specified for <type> flag 'F'".
	ParseGflagUint64 Parse = "gflags uint64"
	ParseGflagInt64  Parse = "gflags int64"
	ParseGflagDouble Parse = "gflags double"
	// ParseDuration: ParseDurationMs (mooncake-common duration_utils.h):
	// trimmed digits then an optional ms/s/m/h (any case); anything else
	// fails the flag's validator: mooncake_master exits 1.
	ParseDuration Parse = "duration ms|s|m|h"
	// ParseSGLang: SGLang's own parsing (sglang/config.go).
	ParseSGLang Parse = "sglang"
)

// Rule is how one range of releases reads a knob: from From (inclusive)
// until the next rule's From. A version added to Versions later inherits
// the last rule.
type Rule struct {
	From  string `json:"from,omitempty"` // first version; "" = the knob's Since
	Parse Parse  `json:"parse"`
	// Default is the value when unset (or when a fallback keeps it), as text.
	Default string `json:"default,omitempty"`
	// DefaultHost, when set, names the host fact the default follows
	// instead of Default ("1" when it holds, else "0"): HostPeermem.
	DefaultHost string `json:"default_host,omitempty"`
	// Min, Max bound the accepted values (inclusive; both 0 = unbounded);
	// Exclude is a hole in that range (ValidatePortRange's ephemeral ports).
	Min       int64 `json:"min,omitempty"`
	Max       int64 `json:"max,omitempty"`
	ExcludeLo int64 `json:"exclude_lo,omitempty"`
	ExcludeHi int64 `json:"exclude_hi,omitempty"`
	PortRange bool  `json:"port_range,omitempty"` // a min/max pair checked together (min <= max)
	// OneOf: the only accepted values (MC_MTU's 512|1024|2048|4096).
	OneOf []int64 `json:"one_of,omitempty"`
	// ExitOnInvalid: a rejected value makes the process exit(EXIT_FAILURE)
	// after InvalidLog (config.cpp's MC_MTU up to v0.3.11.post1).
	ExitOnInvalid bool `json:"exit_on_invalid,omitempty"`
	// Choices: the words ParseChoice accepts; FoldCase: in any case
	// (strcasecmp).
	Choices  []string `json:"choices,omitempty"`
	FoldCase bool     `json:"fold_case,omitempty"`
	Invalid  string   `json:"invalid"`
	// InvalidLog is the line an invalid value prints, whole: "{value}"
	// stands for the text as set, "{lower}" for it lowercased, "{default}"
	// for the default kept (DefaultHost's on this host). For a
	// PortRange knob it is the tail of ValidatePortRange's line, which
	// prints the pair. "" = an invalid value is silent.
	InvalidLog string `json:"invalid_log,omitempty"`
	// InvalidLevel is InvalidLog's glog level: "" is WARNING; LevelStderr
	// marks a plain std::cerr line (no glog prefix, MC_LOG_LEVEL does not
	// drop it).
	InvalidLevel string `json:"invalid_level,omitempty"`
	// UnparsedLog, when set, is the line a ParseStoiCaught value with no
	// leading number (a from_chars one that does not parse) prints
	// instead of InvalidLog (config.cpp's "Invalid
	// MC_IB_TC environment value: abc. Error: stoi").
	UnparsedLog string `json:"unparsed_log,omitempty"`
	// Environ, "int" or "bool": 0.3.13's Environ constructor reads the knob
	// too, strictly (ReadInt: a trimmed whole int; ReadBool: TryParseBool's
	// words), next to the reader Parse describes; text it rejects prints
	// "[Mooncake] Warning: invalid value '<text>' for env <NAME>, using
	// default <EnvironDefault>" on plain stderr (Value.EnvironLog), once per
	// process, when the store client is built (real 0.3.13.post1).
	Environ        string `json:"environ,omitempty"`
	EnvironDefault string `json:"environ_default,omitempty"`
	Source         string `json:"source"` // tag and file:line the rule was read at
}

// HostPeermem is Rule.DefaultHost for a default that is whether the
// nvidia_peermem or nv_peer_mem kernel module is loaded (/sys/module/…;
// WITH_NVIDIA_PEERMEM at 0.3.14, real: REAL-FINDINGS §97).
const HostPeermem = "peermem-module"

// KnobHost is what a Rule.DefaultHost default reads of the host.
type KnobHost struct {
	Peermem bool // the nvidia_peermem or nv_peer_mem module is loaded
}

// defaultOn is the rule's default on host h, as text.
func (r Rule) defaultOn(h KnobHost) string {
	switch r.DefaultHost {
	case HostPeermem:
		if h.Peermem {
			return "1"
		}
		return "0"
	}
	return r.Default
}

// LevelStderr is Rule.InvalidLevel (and Value.Level) for a line Mooncake
// writes with std::cerr, not glog: Environ's "[Mooncake] Warning: …".
const LevelStderr = "stderr"

// Knob is one setting Mooncake (or SGLang on its behalf) reads.
type Knob struct {
	Name  string `json:"name"`
	Scope Scope  `json:"scope"`
	// Reader is the component: "store client", "transfer engine",
	// "mooncake_master", "SGLang".
	Reader string `json:"reader"`
	Type   string `json:"type"` // int, uint64, bool, string, duration, size, port, float
	Doc    string `json:"doc"`
	// Since is the first version that reads it ("" = every version);
	// Until the first that no longer does ("" = still read).
	Since string `json:"since,omitempty"`
	Until string `json:"until,omitempty"`
	Rules []Rule `json:"rules"`
	// Samples are values the generator draws, by class: "valid",
	// "boundary", "invalid".
	Samples map[string][]string `json:"samples"`
	// Modelled: the simulator reads this knob (the others are documented
	// and drawn, but have no effect in the model yet).
	Modelled bool `json:"modelled"`
	// Build names the build that reads it when the PyPI wheel measured for
	// the knob surface may be another ("cuda": up to 0.3.12.post1 the
	// measured wheel is the non-CUDA one), so the surface does not decide
	// whether it is read (Knob.inWheel).
	Build string `json:"build,omitempty"`
}

// ValueClasses are the sample classes, in the order coverage prints them.
var ValueClasses = []string{"valid", "boundary", "invalid"}

// ReadAt reports whether version v reads the knob.
func (k Knob) ReadAt(v Version) bool {
	if k.Since != "" && !v.AtLeast(k.Since) {
		return false
	}
	return k.Until == "" || !v.AtLeast(k.Until)
}

// RuleAt is the rule of version v (false when v does not read the knob).
func (k Knob) RuleAt(v Version) (Rule, bool) {
	if !k.ReadAt(v) || len(k.Rules) == 0 {
		return Rule{}, false
	}
	r := k.Rules[0]
	for _, x := range k.Rules[1:] {
		if x.From == "" || v.AtLeast(x.From) {
			r = x
		}
	}
	return r, true
}

// Value is what one release made of a knob's text.
type Value struct {
	// Read: the version reads the knob and it was set.
	Read bool
	Int  int64
	Uint uint64
	Str  string
	On   bool
	// Fallback: the text was not accepted and the default is kept.
	Fallback bool
	// Log is the line Mooncake prints about it ("" = none), at Level
	// (WARNING, ERROR, or LevelStderr for a plain stderr line).
	Log, Level string
	// Raise is the exception setup() raises (a C++ exception through
	// pybind11); Exit the message a process exits with (status 1, or
	// killed by Signal when that is set: "SIGABRT").
	Raise, Exit, Signal string
	// EnvironLog is Environ's stderr line about the text (Rule.Environ),
	// printed besides Log ("" = none).
	EnvironLog string
}

// KnobByName finds a knob of the table.
func KnobByName(name string) (Knob, bool) {
	for _, k := range Knobs {
		if k.Name == name {
			return k, true
		}
	}
	return Knob{}, false
}

// KnobValue is what version v uses for knob name: raw's parse when it is
// set and read, else the rule's default (Read false; a bool's default is
// "1" or "0"). Unknown knobs and versions that do not read it give Value{}.
func KnobValue(v Version, name, raw string, set bool) Value {
	return KnobValueOn(v, name, raw, set, KnobHost{})
}

// KnobValueOn is KnobValue on host h (a default that follows the host).
func KnobValueOn(v Version, name, raw string, set bool, h KnobHost) Value {
	if k := ParseKnobOn(v, name, raw, set, h); k.Read {
		return k
	}
	k, ok := KnobByName(name)
	if !ok {
		return Value{}
	}
	r, ok := k.RuleAt(v)
	if !ok {
		return Value{}
	}
	d := r.defaultOn(h)
	n, _ := strconv.ParseInt(d, 10, 64)
	return Value{Int: n, Uint: uint64(n), Str: d, On: n == 1}
}

// ParseKnob is what version v makes of knob name set to raw (set=false:
// unset). Unknown knobs and versions that do not read it give Value{}.
func ParseKnob(v Version, name, raw string, set bool) Value {
	return ParseKnobOn(v, name, raw, set, KnobHost{})
}

// ParseKnobOn is ParseKnob on host h.
func ParseKnobOn(v Version, name, raw string, set bool, h KnobHost) Value {
	k, ok := KnobByName(name)
	if !ok {
		return Value{}
	}
	r, ok := k.RuleAt(v)
	if !ok || !set {
		return Value{}
	}
	if !k.inWheel(v) {
		return Value{} // the release's wheel was built without the code that reads it
	}
	r.Default = r.defaultOn(h)
	return r.parse(k.Name, raw)
}

func (r Rule) parse(name, raw string) Value {
	out := Value{Read: true, Str: raw}
	warn := func() {
		if r.InvalidLog == "" {
			return
		}
		out.Log = strings.NewReplacer("{value}", raw, "{lower}", strings.ToLower(raw), "{default}", r.Default).Replace(r.InvalidLog)
		out.Level = r.InvalidLevel
		if out.Level == "" {
			out.Level = "WARNING"
		}
	}
	def := func() Value {
		out.Fallback = true
		warn()
		n, _ := strconv.ParseInt(r.Default, 10, 64)
		out.Int, out.Uint = n, uint64(n)
		return out
	}
	// unparsed: text that is no number at all logs UnparsedLog when the
	// reader has one (a different line from the range check's).
	unparsed := func() Value {
		if r.UnparsedLog != "" {
			r.InvalidLog = r.UnparsedLog
		}
		return def()
	}
	if r.Environ != "" && !environAccepts(r.Environ, raw) {
		out.EnvironLog = fmt.Sprintf("[Mooncake] Warning: invalid value '%s' for env %s, using default %s", raw, name, r.EnvironDefault)
	}
	switch r.Parse {
	case ParsePresence:
		out.On = true
		return out
	case ParseWords:
		switch strings.ToLower(raw) {
		case "false", "0", "no", "off":
		default:
			out.On = true
		}
		return out
	case ParseOnOff:
		on, known := OnOffWord(raw)
		out.On = on || !known
		if !known {
			out.Fallback = true
			warn()
		}
		return out
	case ParseChoice:
		if !slices.ContainsFunc(r.Choices, func(c string) bool { return c == raw || r.FoldCase && strings.EqualFold(c, raw) }) {
			out = def()
			out.Str = r.Default
		}
		return out
	case ParseOneOrTrue:
		out.On = raw == "1" || strings.EqualFold(raw, "true")
		return out
	case ParseReadInt:
		n, ok := readInt(raw)
		if !ok {
			return def()
		}
		out.Int, out.Uint = n, uint64(n)
	case ParseFromChars:
		u, err := strconv.ParseUint(raw, 10, 64)
		if err != nil || raw[0] == '+' {
			return unparsed()
		}
		out.Int, out.Uint = int64(u), u
		if u > math.MaxInt64 {
			out.Int = math.MaxInt64
		}
	case ParseTcpLanesAlias:
		r.Parse = ParseFromChars
		v := r.parse(name, raw)
		dep := name + " is deprecated; use MC_TCP_LANES_PER_PEER"
		if v.Log != "" {
			dep += "\n" + v.Log
		}
		v.Log, v.Level = dep, "WARNING"
		return v
	case ParseStoullCaught:
		u, ok := stoull(raw)
		if !ok {
			return unparsed()
		}
		out.Int, out.Uint = int64(u), u
		if u > math.MaxInt64 {
			out.Int = math.MaxInt64
		}
	case ParseFromCharsInt:
		n, err := strconv.ParseInt(raw, 10, 32)
		if err != nil || raw[0] == '+' {
			return unparsed()
		}
		out.Int, out.Uint = n, uint64(n)
	case ParseGetBool:
		switch strings.ToLower(raw) {
		case "1", "true", "on", "yes":
			out.On = true
		}
		return out
	case ParsePresenceReadBool:
		out.On = true
		if _, known := readBoolWord(raw); !known {
			warn()
		}
		return out
	case ParseReadBool:
		on, known := readBoolWord(raw)
		if !known {
			out.Fallback = true
			warn()
			on = r.Default == "1"
		}
		out.On = on
		return out
	case ParseNicPeerAffinity:
		kept, lines := NicPeerAffinity(name, raw)
		out.Int, out.Uint = int64(kept), uint64(kept)
		if len(lines) > 0 {
			out.Log, out.Level = strings.Join(lines, "\n"), "WARNING"
		}
		return out
	case ParseString, ParseSGLang:
		return out
	case ParseAtoi, ParseAtoll, ParseUAtol:
		n := Atoll(raw)
		if r.Parse == ParseAtoi {
			n = int64(int32(n))
		}
		out.Int, out.Uint = n, uint64(n)
		if r.Parse == ParseUAtol && n < 0 {
			out.Int = math.MaxInt64 // wrapped: far above any device limit
		}
	case ParseStoll, ParseStoi, ParseStoiCaught, ParseStoiAbort:
		n, ok := stoll(raw)
		if !ok {
			switch r.Parse {
			case ParseStoi:
				out.Raise = "ValueError: stoi"
				return out
			case ParseStoiAbort:
				out.Exit = "terminate called after throwing an instance of 'std::invalid_argument'"
				out.Signal = "SIGABRT"
				return out
			case ParseStoiCaught:
				return unparsed()
			}
			r.InvalidLog = "" // GetEnvOr: silent
			return def()
		}
		if r.Parse != ParseStoll {
			n = int64(int32(n))
		}
		out.Int, out.Uint = n, uint64(n)
	case ParseGflagUint64, ParseGflagInt64, ParseGflagDouble:
		var err error
		kind := "uint64"
		switch r.Parse {
		case ParseGflagUint64:
			if strings.HasPrefix(strings.TrimSpace(raw), "-") {
				err = fmt.Errorf("negative")
			} else {
				out.Uint, err = strconv.ParseUint(gflagDigits(raw))
				out.Int = int64(out.Uint)
			}
		case ParseGflagInt64:
			kind = "int64"
			out.Int, err = strconv.ParseInt(gflagDigits(raw))
		default:
			kind = "double"
			var f float64
			f, err = strconv.ParseFloat(raw, 64)
			out.Str = strconv.FormatFloat(f, 'g', -1, 64)
		}
		if err != nil {
			out.Exit = fmt.Sprintf("ERROR: illegal value '%s' specified for %s flag '%s'", raw, kind, name)
		}
		return out
	case ParseDuration:
		ms, why := ParseDurationMs(raw)
		if why != "" {
			out.Exit = fmt.Sprintf("Invalid value for --%s: %s. %s", name, raw, why)
			return out
		}
		out.Int, out.Uint = int64(ms), ms
		return out
	}
	if len(r.OneOf) > 0 && !slices.Contains(r.OneOf, out.Int) {
		if r.ExitOnInvalid {
			warn()
			out.Exit = out.Log
			return out
		}
		return def()
	}
	// A port pair is checked together by its reader (ValidatePortRange).
	if !r.PortRange && !r.inRange(out.Int) {
		return def()
	}
	return out
}

// OnOffWord is transfer_task.cpp's reading of MC_STORE_MEMCPY (v0.3.4
// …): "false", "0", "no", "off" off, "true", "1", "yes", "on" on, in any
// case; known=false for any other text.
func OnOffWord(s string) (on, known bool) {
	switch strings.ToLower(s) {
	case "false", "0", "no", "off":
		return false, true
	case "true", "1", "yes", "on":
		return true, true
	}
	return false, false
}

// NicPeerAffinity is parseNicPeerAffinity (v0.3.12.post1
// mooncake-transfer-engine/src/config.cpp:61-101, main@3b5a594 alike):
// the number of mappings it keeps (a later rule for the same local HCA
// replaces an earlier one) and the WARNING line of each rule it drops.
func NicPeerAffinity(name, raw string) (kept int, lines []string) {
	const space = " \t\n\r"
	local := map[string]bool{}
	// std::getline over ';': no item after a trailing ';'.
	items := strings.Split(raw, ";")
	if strings.HasSuffix(raw, ";") {
		items = items[:len(items)-1]
	}
	for _, item := range items {
		rule := strings.Trim(item, space)
		if rule == "" {
			continue
		}
		l, peers, ok := strings.Cut(rule, "=")
		if !ok {
			lines = append(lines, "Invalid "+name+" rule '"+rule+"'. Expected local_hca=peer_hca[,peer_hca].")
			continue
		}
		if l = strings.Trim(l, space); l == "" {
			lines = append(lines, "Invalid "+name+" rule '"+rule+"': local HCA is empty.")
			continue
		}
		n := 0
		ps := strings.Split(peers, ",")
		if strings.HasSuffix(peers, ",") {
			ps = ps[:len(ps)-1]
		}
		for _, p := range ps {
			if strings.Trim(p, space) != "" {
				n++
			}
		}
		if n == 0 {
			lines = append(lines, "Invalid "+name+" rule '"+rule+"': peer HCA list is empty.")
			continue
		}
		local[l] = true
	}
	return len(local), lines
}

// readBoolWord is TryParseBool (bool_parser.h, main@3b5a594): known=false
// for text it does not accept.
func readBoolWord(s string) (on, known bool) {
	switch t := strings.ToLower(strings.Trim(s, " \t\n\v\f\r")); {
	case t == "1" || t == "true" || t == "yes" || t == "on" || t == "enable":
		return true, true
	case t == "0" || t == "false" || t == "no" || t == "off" || t == "disable":
		return false, true
	}
	return false, false
}

// readInt is Environ's ReadInt parse (TryParseInteger<int>, trimmed, one
// optional leading '+').
func readInt(s string) (int64, bool) {
	t := strings.Trim(s, " \t\n\v\f\r")
	if strings.HasPrefix(t, "+") {
		t = t[1:]
		if strings.HasPrefix(t, "+") || strings.HasPrefix(t, "-") {
			return 0, false
		}
	}
	if t == "" || strings.HasPrefix(t, "+") {
		return 0, false
	}
	n, err := strconv.ParseInt(t, 10, 32)
	return n, err == nil
}

// environAccepts is whether Environ's strict reader of kind ("int" or
// "bool") takes the text.
func environAccepts(kind, raw string) bool {
	if kind == "bool" {
		_, ok := readBoolWord(raw)
		return ok
	}
	_, ok := readInt(raw)
	return ok
}

// gflagDigits: gflags reads base 16 after "0x", else base 10 (so "010"
// is ten), the whole value.
func gflagDigits(raw string) (string, int, int) {
	t := strings.TrimSpace(raw)
	neg := strings.HasPrefix(t, "-")
	u := strings.TrimPrefix(t, "-")
	if strings.HasPrefix(u, "0x") || strings.HasPrefix(u, "0X") {
		if neg {
			return "-" + u[2:], 16, 64
		}
		return u[2:], 16, 64
	}
	return t, 10, 64
}

func (r Rule) inRange(n int64) bool {
	if r.Min == 0 && r.Max == 0 {
		return true
	}
	if n < r.Min || n > r.Max {
		return false
	}
	return r.ExcludeHi == 0 || n < r.ExcludeLo || n > r.ExcludeHi
}

// ValidatePortRange is Mooncake's check of a configured port pair
// (mooncake-transfer-engine config.cpp ValidatePortRange, v0.3.11:435,
// v0.3.12.post1:737): both in 1024..65535, neither in the ephemeral
// 32768..60999, min <= max; else a warning and the defaults.
func ValidatePortRange(lo, hi, defLo, defHi int64) (int64, int64, string) {
	ok := func(p int64) bool { return p >= 1024 && p <= 65535 && !(p >= 32768 && p <= 60999) }
	if !ok(lo) || !ok(hi) || lo > hi {
		return defLo, defHi, fmt.Sprintf("Invalid port range [%d, %d], falling back to default [%d, %d]", lo, hi, defLo, defHi)
	}
	return lo, hi, ""
}

// Atoll is C's atoll: leading white space, an optional sign, the leading
// decimal digits (saturating, as glibc's strtoll does).
func Atoll(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '-' || s[0] == '+') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var n int64
	for _, c := range s {
		if c < '0' || c > '9' {
			break
		}
		if n > (math.MaxInt64-int64(c-'0'))/10 {
			if neg {
				return math.MinInt64
			}
			return math.MaxInt64
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n
}

// stoll is std::stoll: like Atoll but no leading digits is an error
// (std::invalid_argument), and so is overflow (std::out_of_range).
func stoll(s string) (int64, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	if t != "" && (t[0] == '-' || t[0] == '+') {
		t = t[1:]
	}
	if t == "" || t[0] < '0' || t[0] > '9' {
		return 0, false
	}
	n := Atoll(s)
	if n == math.MaxInt64 || n == math.MinInt64 {
		return 0, false
	}
	return n, true
}

// Stoi is std::stoi: stoll's parse (leading space, a sign, the leading
// digits), and a value outside int throws (out_of_range) as no digits do
// (invalid_argument): false either way.
func Stoi(s string) (int64, bool) {
	n, ok := stoll(s)
	if !ok || n < math.MinInt32 || n > math.MaxInt32 {
		return 0, false
	}
	return n, true
}

// stoull is std::stoull: leading space, an optional sign, the leading
// digits; none, or more than 2⁶⁴−1, is an error; '-' negates mod 2⁶⁴.
func stoull(s string) (uint64, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	neg := t != "" && t[0] == '-'
	if t != "" && (t[0] == '-' || t[0] == '+') {
		t = t[1:]
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	u, err := strconv.ParseUint(t[:i], 10, 64)
	if err != nil {
		return 0, false
	}
	if neg {
		u = -u
	}
	return u, true
}

// ParseDurationMs is mooncake-common/include/duration_utils.h
// ParseDurationMs (v0.3.10.post1): the error text "" when it parses.
func ParseDurationMs(v string) (uint64, string) {
	t := strings.TrimSpace(v)
	if t == "" {
		return 0, "duration is empty; expected a non-negative integer optionally followed by ms, s, m, or h"
	}
	i := 0
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return 0, "duration must start with a non-negative integer and may use ms, s, m, or h as the unit suffix"
	}
	var n uint64
	for _, c := range t[:i] {
		d := uint64(c - '0')
		if n > (math.MaxUint64-d)/10 {
			return 0, "duration value is too large"
		}
		n = n*10 + d
	}
	mult := map[string]uint64{"": 1, "ms": 1, "s": 1000, "m": 60 * 1000, "h": 60 * 60 * 1000}
	suffix := strings.ToLower(strings.TrimSpace(t[i:]))
	m, ok := mult[suffix]
	if !ok {
		return 0, "unsupported duration unit '" + suffix + "'; supported units are ms, s, m, and h"
	}
	if n > math.MaxUint64/m {
		return 0, "duration value is too large after unit conversion"
	}
	return n * m, ""
}
