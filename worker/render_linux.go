package worker

import "syscall"

// childAttr makes the kernel kill a render child when the worker dies (a
// SIGKILLed worker cannot kill it itself), so a crashed worker's renders
// do not run on as orphans until their CPU limit.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
