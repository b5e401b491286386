package testkit

import (
	"os/exec"
	"syscall"
)

// dieWithTest makes the kernel kill cmd when the test binary exits, also
// when it never runs its cleanups (a -timeout panic, a crash): a server left
// running keeps consuming the package's Redis queue in the next run.
func dieWithTest(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
