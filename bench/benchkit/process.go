package benchkit

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

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
