//go:build unix

package main

import "syscall"

// generatorCPU is this process's user+system CPU seconds: the load
// generator shares the host with the server, so its own cost is reported.
func generatorCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
