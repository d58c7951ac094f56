package te

import (
	"net/netip"
	"strconv"
	"strings"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
)

// hostPort is parseHostNameWithPort's result; illegal: the text it read as
// the port was none, so port is the handshake port.
type hostPort struct {
	host    string
	port    int
	illegal bool
}

// parseHostNameWithPort is common.h's, as the release reads it
// (mooncake.Profile.HostNameParse), with getPortFromString's warning.
func (e *Engine) parseHostNameWithPort(name string) hostPort {
	def := e.handshakePort()
	p := e.cfg.Profile.HostNameParse
	if p.WholeName {
		// common.h v0.3.4:117-129: the first ':', atoi.
		i := strings.Index(name, ":")
		if i < 0 {
			return hostPort{host: name, port: def}
		}
		if v := atoi(name[i+1:]); v > 0 && v <= 65535 {
			return hostPort{host: name[:i], port: v}
		}
		e.logf(mlog.Warning, "Illegal port number in %s. Use default port %d instead", name, def)
		return hostPort{host: name[:i], port: def, illegal: true}
	}
	if strings.HasPrefix(name, "[") {
		if c := strings.Index(name, "]"); c > 0 && isIPv6(name[1:c]) {
			h := name[1:c]
			if j := strings.Index(name[c:], ":"); j >= 0 {
				return e.portFromString(h, name[c+j+1:], def)
			}
			if p.BracketNoPort {
				return e.portFromString(h, name, def)
			}
			return hostPort{host: h, port: def}
		}
	} else if isIPv6(name) {
		return hostPort{host: name, port: def}
	}
	i := strings.LastIndex(name, ":")
	if i < 0 {
		return hostPort{host: name, port: def}
	}
	return e.portFromString(name[:i], name[i+1:], def)
}

// portFromString is getPortFromString: from_chars<uint16_t> of the whole
// text (digits only, at most 65535), else the warning and def.
func (e *Engine) portFromString(host, s string, def int) hostPort {
	if s != "" && strings.Trim(s, "0123456789") == "" {
		if v, err := strconv.ParseUint(s, 10, 16); err == nil {
			return hostPort{host: host, port: int(v)}
		}
	}
	e.logf(mlog.Warning, "Illegal port number in %s. Use default port %d instead", s, def)
	return hostPort{host: host, port: def, illegal: true}
}

// isIPv6 is isValidIpV6 (inet_pton AF_INET6).
func isIPv6(s string) bool {
	a, err := netip.ParseAddr(s)
	return err == nil && a.Is6()
}

// atoi is C's: leading blanks, an optional sign, then digits; 0 if none.
func atoi(s string) int {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	n := 0
	for i := 0; i < len(s) && s[i] >= '0' && s[i] <= '9' && n <= 1<<31; i++ {
		n = n*10 + int(s[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}
