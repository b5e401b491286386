//go:build !linux

package worker

import "syscall"

// childAttr: only Linux can tie a child's life to its parent's; elsewhere
// an orphaned render child runs on until its CPU limit.
func childAttr() *syscall.SysProcAttr { return nil }
