package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Path is where the endpoint serves its metrics.
const Path = "/metrics"

// Listen opens addr (HOST:PORT) for the endpoint. The endpoint has no
// authentication, and a run's scenario and backend names may be private:
// unless remote is set, HOST must be a loopback address (127.0.0.1,
// [::1], localhost), and an empty HOST (every interface) is refused.
func Listen(addr string, remote bool) (net.Listener, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("metrics address %q: %w (want HOST:PORT, e.g. 127.0.0.1:9464)", addr, err)
	}
	if !remote && !loopback(host) {
		return nil, fmt.Errorf("metrics address %q is not a loopback address: the endpoint has no authentication; listen on 127.0.0.1 or [::1], or allow other hosts with -metrics-allow-remote", addr)
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics endpoint: %w", err)
	}
	return l, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Server serves an exporter until Close.
type Server struct {
	srv  *http.Server
	done chan error
}

// Serve serves e's metrics on l at Path, in the text format or, for a
// scraper that asks for it, protobuf (with native histograms).
func (e *Exporter) Serve(l net.Listener) *Server {
	mux := http.NewServeMux()
	mux.Handle(Path, promhttp.HandlerFor(e.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprintf(w, "mentat-spec apply: metrics at %s\n", Path)
	})
	s := &Server{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}, done: make(chan error, 1)}
	go func() { s.done <- s.srv.Serve(l) }()
	return s
}

// Close stops serving, letting a scrape under way finish (for up to 2 s).
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
