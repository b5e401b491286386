//go:build !linux

package testkit

import "os/exec"

// dieWithTest has no portable equivalent of Linux's parent-death signal.
func dieWithTest(*exec.Cmd) {}
