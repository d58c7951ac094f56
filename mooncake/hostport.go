package mooncake

// HostNameParse is how a release's parseHostNameWithPort (transfer
// engine, include/common.h) reads "host:port", and who calls it on
// local_hostname: the store's Client::InitTransferEngine before the
// transfer engine's init at every tag (client.cpp v0.3.4.post2:169,
// client_service.cpp v0.3.9:284), then TransferEngine::init itself. A port
// that is not a port is "Illegal port number in X. Use default port D
// instead" (WARNING) and the handshake port D is used; real 0.3.4.post2 …
// 0.3.14 print it twice per store setup (docs/REAL-FINDINGS.md §91).
type HostNameParse struct {
	// WholeName: up to v0.3.4.post2 the port is atoi of the text after the
	// first ':' (illegal when ≤ 0 or > 65535) and the warning names the
	// whole server name (common.h v0.3.4:117-129). From v0.3.5 it is
	// from_chars<uint16_t> of the text after the last ':' (the whole text,
	// digits only) and the warning names that text (common.h v0.3.5:141).
	WholeName bool
	// BracketNoPort: v0.3.5 … v0.3.7.post2 read "[v6]" without a port as
	// the port "[v6]" (find(':', ']') is npos, substr(npos+1) the whole
	// name: real 0.3.7.post2 "Illegal port number in [::1]"); from v0.3.8
	// extractIPv6HostAndPort gives no port, no warning.
	BracketNoPort bool
	// InitAlways: TransferEngine::init parses local_server_name first at
	// any metadata (transfer_engine.cpp v0.3.5:62); up to v0.3.4.post2 only
	// on its legacy/P2P branch (transfer_engine.cpp v0.3.4:56).
	InitAlways bool
}

func hostNameParseFor(at func(string) bool) HostNameParse {
	return HostNameParse{WholeName: !at("0.3.5"), BracketNoPort: at("0.3.5") && !at("0.3.8"), InitAlways: at("0.3.5")}
}
