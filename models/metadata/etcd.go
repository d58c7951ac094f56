package metadata

// Etcd models the etcd key space as Mooncake's transfer engine uses it
// (mooncake/rpc_meta/<name>, mooncake/ram/<name>): Put overwrites without
// any duplicate check (unlike the HTTP server's rpc_meta rule), Delete of
// a missing key is not an error, and the data survives a restart (etcd
// persists to its data dir). Clock-agnostic; the fake engine serves real
// etcd instead (etcd's embed package), so this model is sim's only.
type Etcd struct {
	kv  map[string][]byte
	rev int64
}

// NewEtcd returns an empty key space at revision 1.
func NewEtcd() *Etcd { return &Etcd{kv: map[string][]byte{}, rev: 1} }

// Put stores value and returns the new revision.
func (s *Etcd) Put(key string, value []byte) int64 {
	s.rev++
	s.kv[key] = append([]byte(nil), value...)
	return s.rev
}

// Get returns the value of key.
func (s *Etcd) Get(key string) ([]byte, bool) {
	v, ok := s.kv[key]
	return append([]byte(nil), v...), ok
}

// Delete removes key and returns how many keys were deleted (0 or 1).
func (s *Etcd) Delete(key string) int64 {
	if _, ok := s.kv[key]; !ok {
		return 0
	}
	s.rev++
	delete(s.kv, key)
	return 1
}

// Len is the number of keys.
func (s *Etcd) Len() int { return len(s.kv) }

// Revision is the store's current revision.
func (s *Etcd) Revision() int64 { return s.rev }
