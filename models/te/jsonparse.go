package te

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mooncake-faultlab/faultlab/models/mlog"
)

// jsoncppParseError is what HTTPStoragePlugin::get's Json::CharReader
// reports for a 200 answer's body (getFormattedErrorMessages: "* Line L,
// Column C\n  <message>\n"), or "" when the body parses. jsoncpp's
// defaults (CharReaderBuilder: failIfExtra false) read the first value and
// ignore what follows it. Only a body whose first token starts no value —
// a gateway's HTML page, the harness's answer "injected", an empty body —
// is modelled; real 0.3.9 and 0.3.13.post1 print "* Line 1, Column 1" then
// "  Syntax error: value, object or array expected." for "injected". A
// value broken further in gets jsoncpp's other messages, not modelled:
// the same first-token text stands for them.
func jsoncppParseError(body []byte) string {
	var v any
	if json.NewDecoder(bytes.NewReader(body)).Decode(&v) == nil {
		return ""
	}
	line, col := 1, 1
	for _, c := range body {
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			break
		}
		col++
		if c == '\n' {
			line, col = line+1, 1
		}
	}
	return fmt.Sprintf("* Line %d, Column %d\n  Syntax error: value, object or array expected.\n", line, col)
}

// parseAnswer is the end of HTTPStoragePlugin::get: a 200 answer that is
// not JSON fails the read. From 0.3.6 it logs "GET <url> json parse
// error: <errs>" (transfer_metadata_plugin.cpp v0.3.6:273, v0.3.9:292,
// v0.3.12.post1:302); up to 0.3.5 Json::Reader's failure returns false
// with no line. glog prints errs' lines in the one record; a log reader
// sees the ones after the first as lines of their own, unprefixed (INFO
// to the real engine), so they are logged so here — but always, as glog
// prints them with the record, whatever MC_LOG_LEVEL drops.
func (e *Engine) parseAnswer(u string, body []byte) bool {
	errs := jsoncppParseError(body)
	if errs == "" {
		return true
	}
	if e.cfg.Profile.HTTPPluginLegacyLog {
		return false
	}
	lines := strings.Split(strings.TrimSuffix(errs, "\n"), "\n")
	e.logf(mlog.Error, "GET %s json parse error: %s", u, lines[0])
	for _, l := range lines[1:] {
		e.logf(mlog.Info, "%s", l)
	}
	return false
}
