package benchkit

import (
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Server is an ounce server process the harness started on loopback.
type Server struct {
	Cmd *exec.Cmd
	// Addr is its host:port, Base its URL and Dir its data directory.
	Addr, Base, Dir string
}

// StartServer starts `bin serve` on a free loopback port with a new data directory (named
// after prefix) and env added to the harness's environment; the server's standard error goes
// to stderr and its output nowhere. The caller waits until it is ready.
func StartServer(bin, prefix string, stderr io.Writer, env ...string) (*Server, error) {
	dir, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "serve")
	cmd.Env = append(append(os.Environ(), "OUNCE_ADDR="+addr, "OUNCE_DATA_DIR="+dir), env...)
	cmd.Stdout, cmd.Stderr = io.Discard, stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &Server{Cmd: cmd, Addr: addr, Base: "http://" + addr, Dir: dir}, nil
}

// Stop ends the server as Stop does, allowing it grace to finish.
func (s *Server) Stop(grace time.Duration) { Stop(s.Cmd, grace, s.Dir) }

// Mem reads the server's VmRSS and VmHWM, in bytes (see Mem).
func (s *Server) Mem() (rss, hwm int64) { return Mem(s.Cmd.Process.Pid) }

// ResetPeak clears the server's VmHWM, so the next peak read is what follows.
func (s *Server) ResetPeak() {
	_ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", s.Cmd.Process.Pid), []byte("5"), 0)
}

// Stop interrupts a server process the harness started, kills it when it has not ended within
// grace, and removes its data directory.
func Stop(cmd *exec.Cmd, grace time.Duration, dir string) {
	_ = cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(grace):
		_ = cmd.Process.Kill()
		<-done
	}
	_ = os.RemoveAll(dir)
}

// Mem reads the resident set (VmRSS) and its peak (VmHWM) of process pid, in bytes; zeros when
// /proc cannot be read.
func Mem(pid int) (rss, hwm int64) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 {
			n, _ := strconv.ParseInt(f[1], 10, 64)
			switch f[0] {
			case "VmRSS:":
				rss = n << 10
			case "VmHWM:":
				hwm = n << 10
			}
		}
	}
	return rss, hwm
}
