package adapter

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mentat-spec/mentat-spec/drivers/adapter/protocol"
)

// stderrLines is how many of an adapter's last stderr lines an error
// quotes.
const stderrLines = 10

// killGrace is how long an interrupted adapter has to answer before it
// is killed.
const killGrace = time.Second

// proc is one running adapter process and its pipes. One goroutine at a
// time talks to it; interrupt and kill may come from another.
type proc struct {
	cmd    *exec.Cmd
	in     *bufio.Writer
	inPipe io.WriteCloser
	out    *bufio.Reader
	tail   *tail
	exited chan struct{} // closed once the process has been waited for
	err    error         // the process's exit, set before exited closes

	mu     sync.Mutex
	killed bool // the engine killed it (a cut call or close)
}

// spec is how to start an adapter: argv, extra environment, directory.
type spec struct {
	argv []string
	env  []string
	dir  string
}

func (s spec) String() string { return strings.Join(s.argv, " ") }

// start runs the adapter; its stderr goes to a tail of its last lines.
func start(s spec) (*proc, error) {
	if len(s.argv) == 0 {
		return nil, errors.New("no command")
	}
	cmd := exec.Command(s.argv[0], s.argv[1:]...)
	cmd.Env = append(os.Environ(), s.env...)
	cmd.Dir = s.dir
	// Its own process group: a terminal's ^C reaches the engine, which
	// then closes its adapters, not every adapter at once mid-call.
	cmd.SysProcAttr = sysProcAttr()
	p := &proc{cmd: cmd, tail: &tail{}, exited: make(chan struct{})}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting adapter %s: %w", s, err)
	}
	p.inPipe, p.in, p.out = in, bufio.NewWriterSize(in, 64<<10), bufio.NewReaderSize(out, 64<<10)
	stderrDone := make(chan struct{})
	go func() {
		p.tail.readFrom(errPipe)
		close(stderrDone)
	}()
	go func() {
		<-stderrDone
		p.err = cmd.Wait()
		cpu.exited(cmd.ProcessState)
		close(p.exited)
	}()
	cpu.started(p)
	return p, nil
}

// roundTrip writes req and reads one reply line. A context done mid-call
// interrupts the adapter, then kills it after killGrace; cut reports
// that the context ended the call.
func (p *proc) roundTrip(ctx context.Context, req []byte) (rep *protocol.Reply, line []byte, cut bool, err error) {
	if _, err := p.in.Write(req); err != nil {
		return nil, nil, false, err
	}
	if err := p.in.Flush(); err != nil {
		return nil, nil, false, err
	}
	var timer *time.Timer
	var tmu sync.Mutex
	stop := context.AfterFunc(ctx, func() {
		p.signal(os.Interrupt)
		tmu.Lock()
		timer = time.AfterFunc(killGrace, p.kill)
		tmu.Unlock()
	})
	line, err = protocol.ReadLine(p.out)
	if !stop() {
		cut = true
		tmu.Lock()
		if timer != nil {
			timer.Stop()
		}
		tmu.Unlock()
	}
	if err != nil {
		return nil, line, cut, err
	}
	rep, err = protocol.ParseReply(line)
	return rep, line, cut, err
}

func (p *proc) signal(sig os.Signal) {
	select {
	case <-p.exited:
	default:
		p.cmd.Process.Signal(sig)
	}
}

// kill ends the process; its reply, if any, is never read.
func (p *proc) kill() {
	p.mu.Lock()
	p.killed = true
	p.mu.Unlock()
	p.signal(syscall.SIGKILL)
}

// close asks the adapter to end (close, then end of input) and kills it
// if it has not ended within killGrace.
func (p *proc) close() {
	p.in.WriteString(`{"op":"close"}` + "\n")
	p.in.Flush()
	p.inPipe.Close()
	select {
	case <-p.exited:
	case <-time.After(killGrace):
		p.kill()
		<-p.exited
	}
}

// failure describes an adapter that exited or broke the protocol: what
// happened, the line it could not read, and its last stderr lines. It
// waits a little for the process to end so that its exit status and last
// words are in.
func (p *proc) failure(what string, line []byte) string {
	select {
	case <-p.exited:
	case <-time.After(200 * time.Millisecond):
	}
	var b strings.Builder
	b.WriteString(what)
	if len(line) > 0 {
		l := string(line)
		if len(l) > 200 {
			l = l[:200] + "..."
		}
		fmt.Fprintf(&b, "; the line it wrote: %q", l)
	}
	select {
	case <-p.exited:
		if p.err != nil {
			fmt.Fprintf(&b, "; the adapter exited: %v", p.err)
		} else {
			b.WriteString("; the adapter exited with status 0")
		}
	default:
	}
	if t := p.tail.lines(); len(t) > 0 {
		b.WriteString("; its last stderr lines:\n  " + strings.Join(t, "\n  "))
	} else {
		b.WriteString("; it wrote nothing on stderr")
	}
	return b.String()
}

// tail keeps the last stderrLines lines written to it.
type tail struct {
	mu  sync.Mutex
	buf []string
}

func (t *tail) readFrom(r io.Reader) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<20)
	for sc.Scan() {
		t.add(sc.Text())
	}
	// A line past 1 MiB stops the scanner: drain the rest so the adapter
	// never blocks on a full stderr pipe.
	io.Copy(io.Discard, r)
}

func (t *tail) add(l string) {
	if len(l) > 500 {
		l = l[:500] + "..."
	}
	t.mu.Lock()
	t.buf = append(t.buf, l)
	if len(t.buf) > stderrLines {
		t.buf = t.buf[len(t.buf)-stderrLines:]
	}
	t.mu.Unlock()
}

func (t *tail) lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.buf...)
}
