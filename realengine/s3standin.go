package realengine

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mooncake-faultlab/faultlab/engine"
)

// s3StandIn is the {{s3}} role: an in-memory bucket endpoint on this
// host's loopback that answers the requests 0.3.14's S3 adapter makes
// (path-style, as the adapter addresses an IP endpoint: PUT, GET, HEAD,
// DELETE of an object, a ListObjectsV2 GET of the bucket). It stands in
// for an S3 service, which this machine has none of; it checks no
// signature. One bucket namespace per path's first segment.
type s3StandIn struct {
	srv *http.Server
	url string

	mu      sync.Mutex
	objects map[string][]byte // "bucket/key"
}

func startS3StandIn() (*s3StandIn, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("real engine: s3 stand-in: %w", err)
	}
	s := &s3StandIn{url: "http://" + ln.Addr().String(), objects: map[string][]byte{}}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

func (s *s3StandIn) close(ctx context.Context) error {
	if err := s.srv.Shutdown(ctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("real engine: s3 stand-in: %w", err)
	}
	return nil
}

// listResult is ListObjectsV2's answer, the fields the adapter reads.
type listResult struct {
	XMLName     xml.Name      `xml:"ListBucketResult"`
	Name        string        `xml:"Name"`
	Prefix      string        `xml:"Prefix"`
	KeyCount    int           `xml:"KeyCount"`
	IsTruncated bool          `xml:"IsTruncated"`
	Contents    []listContent `xml:"Contents"`
}

type listContent struct {
	Key  string `xml:"Key"`
	Size int    `xml:"Size"`
}

func (s *s3StandIn) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	bucket, key, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if k, err := url.PathUnescape(key); err == nil {
		key = k
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case key == "" && r.Method == http.MethodGet:
		s.list(w, bucket, r.URL.Query().Get("prefix"))
	case r.Method == http.MethodPut:
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		s.objects[bucket+"/"+key] = body
		w.Header().Set("ETag", `"standin"`)
	case r.Method == http.MethodGet || r.Method == http.MethodHead:
		b, ok := s.objects[bucket+"/"+key]
		if !ok {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusNotFound)
			if r.Method == http.MethodGet {
				_, _ = io.WriteString(w, "<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>")
			}
			return
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(b)))
		if r.Method == http.MethodGet {
			_, _ = w.Write(b)
		}
	case r.Method == http.MethodDelete:
		delete(s.objects, bucket+"/"+key)
		w.WriteHeader(http.StatusNoContent)
	default:
		// What Mooncake's adapter sends is served above; anything else
		// (a multipart upload) is refused by name, not answered wrongly.
		http.Error(w, "the stand-in serves object PUT, GET, HEAD, DELETE and bucket listing only, not "+r.Method, http.StatusNotImplemented)
	}
}

// list answers ListObjectsV2 with every key under prefix, never truncated.
func (s *s3StandIn) list(w http.ResponseWriter, bucket, prefix string) {
	res := listResult{Name: bucket, Prefix: prefix}
	for k, b := range s.objects {
		if name, ok := strings.CutPrefix(k, bucket+"/"); ok && strings.HasPrefix(name, prefix) {
			res.Contents = append(res.Contents, listContent{Key: name, Size: len(b)})
		}
	}
	slices.SortFunc(res.Contents, func(a, b listContent) int { return strings.Compare(a.Key, b.Key) })
	res.KeyCount = len(res.Contents)
	out, err := xml.Marshal(res)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/xml")
	_, _ = io.WriteString(w, xml.Header)
	_, _ = w.Write(out)
}

// s3Addr is the stand-in's URL (http://127.0.0.1:port), started once.
func (w *World) s3Addr() (string, error) {
	if w.ctr != nil {
		return "", engine.Unsupportedf("real engine: role s3: a stand-in on this host's loopback, which a container cannot reach")
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.s3 == nil {
		s, err := startS3StandIn()
		if err != nil {
			return "", err
		}
		w.s3 = s
	}
	return w.s3.url, nil
}
