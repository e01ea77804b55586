package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/mentat-spec/mentat-spec/engine/metrics"
	"github.com/mentat-spec/mentat-spec/engine/runner"
)

// metricsFlags are apply's metrics endpoint.
type metricsFlags struct {
	listen string
	linger time.Duration
	remote bool
}

func (m *metricsFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.listen, "metrics-listen", "", "serve the run's metrics (calls, errors, latency histograms per point, progress) in the Prometheus format at http://HOST:PORT/metrics while it runs; HOST must be a loopback address (127.0.0.1, [::1]) unless -metrics-allow-remote (docs/metrics.md)")
	fs.DurationVar(&m.linger, "metrics-linger", 0, "with -metrics-listen: keep serving this long after the run ends, so that a scraper gets the last numbers (Ctrl-C stops it early)")
	fs.BoolVar(&m.remote, "metrics-allow-remote", false, "with -metrics-listen: allow an address other hosts reach; the endpoint has no authentication and shows scenario and backend names")
}

// start opens the endpoint: a nil watcher when not asked for. stop ends
// it after the run, lingering unless ctx is done.
func (m *metricsFlags) start(ctx context.Context, log io.Writer) (w runner.Watcher, stop func(), err error) {
	if m.listen == "" {
		return nil, func() {}, nil
	}
	l, err := metrics.Listen(m.listen, m.remote)
	if err != nil {
		return nil, nil, err
	}
	e := metrics.New()
	srv := e.Serve(l)
	fmt.Fprintf(log, "Metrics: http://%s%s\n", l.Addr(), metrics.Path)
	return e, func() {
		e.Finish()
		if m.linger > 0 && ctx.Err() == nil {
			fmt.Fprintf(log, "Metrics: still served for %s\n", m.linger)
			select {
			case <-time.After(m.linger):
			case <-ctx.Done():
			}
		}
		_ = srv.Close()
	}, nil
}
