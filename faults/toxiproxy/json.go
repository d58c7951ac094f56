package toxiproxy

import (
	"bytes"
	"encoding/json"
	"io"
)

func jsonBody(v any) (io.Reader, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return bytes.NewReader(b), nil
}
