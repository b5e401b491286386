//go:build unix

package photo

import (
	"syscall"
	"time"
)

// cpuTime is the process's user+system time: benchmarks report it per photo
// because wall time on a shared 2-core machine measures the neighbours too.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
