package receipts

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"
)

// childCPU is the CPU time (user + system) used so far by finished child processes: the tools.
func childCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// benchImages are the one-page images of every fixture: clean 150 and 300 dpi and the photos.
func benchImages(b *testing.B) []string {
	var out []string
	for _, suffix := range []string{"-150.png", "-300.png", "-photo.jpg"} {
		files, _ := filepath.Glob("testdata/rendered/*" + suffix)
		out = append(out, files...)
	}
	if len(out) < 18 {
		b.Fatalf("only %d images (run testdata/render.sh)", len(out))
	}
	sort.Strings(out)
	return out
}

func pct(d []time.Duration, p float64) time.Duration {
	s := append([]time.Duration{}, d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// BenchmarkScanImage is a one-page image scanned as the service does it (header checks,
// ImageMagick pre-processing, tesseract, parsing), against the baseline of tesseract alone
// with its defaults on the same files in the same run. It reports p50 and p95 wall time per
// image and the tools' CPU time per image (wall time depends on what else the machine runs):
//
//	go test ./internal/receipts -run '^$' -bench BenchmarkScanImage -benchtime 2x
func BenchmarkScanImage(b *testing.B) {
	s := testService(b)
	images := benchImages(b)
	b.Run("pipeline", func(b *testing.B) {
		var walls, cpus []time.Duration
		cpu0 := childCPU()
		for b.Loop() {
			for _, f := range images {
				data, _ := os.ReadFile(f)
				start, c0 := time.Now(), childCPU()
				kind, err := Sniff(data)
				if err == nil {
					_, _, err = checkImage(kind, data)
				}
				if err != nil {
					b.Fatal(err)
				}
				ex, err := s.extract(context.Background(), kind, data)
				if err != nil {
					b.Fatal(err)
				}
				Parse(ex.text)
				walls = append(walls, time.Since(start))
				cpus = append(cpus, childCPU()-c0)
			}
		}
		report(b, walls, childCPU()-cpu0)
		b.ReportMetric(pct(cpus, 0.95).Seconds(), "p95-cpu-s/img")
	})
	b.Run("baseline-tesseract-alone", func(b *testing.B) {
		var walls, cpus []time.Duration
		cpu0 := childCPU()
		for b.Loop() {
			for _, f := range images {
				start, c0 := time.Now(), childCPU()
				cmd := exec.Command("tesseract", f, "stdout")
				cmd.Env = []string{"PATH=/usr/bin:/bin", "OMP_THREAD_LIMIT=1"}
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				walls = append(walls, time.Since(start))
				cpus = append(cpus, childCPU()-c0)
			}
		}
		report(b, walls, childCPU()-cpu0)
		b.ReportMetric(pct(cpus, 0.95).Seconds(), "p95-cpu-s/img")
	})
}

func report(b *testing.B, walls []time.Duration, cpu time.Duration) {
	b.ReportMetric(pct(walls, 0.5).Seconds(), "p50-s/img")
	b.ReportMetric(pct(walls, 0.95).Seconds(), "p95-s/img")
	b.ReportMetric(cpu.Seconds()/float64(len(walls)), "cpu-s/img")
	b.ReportMetric(0, "ns/op")
}
