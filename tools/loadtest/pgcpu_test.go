package main

import (
	"os"
	"strconv"
	"testing"
)

// A cluster's CPU is its postmaster's and its live children's: here, this
// process stands for a postmaster (its pid file written by hand).
func TestClusterCPUReadsThePostmasterAndItsChildren(t *testing.T) {
	if got := parentOf("12 (post gres: a) S 7 12 12 0 -1"); got != 7 {
		t.Fatalf("ppid %d", got)
	}
	dir := t.TempDir()
	if clusterCPU(dir) != -1 {
		t.Fatal("no postmaster.pid must read -1")
	}
	os.WriteFile(dir+"/postmaster.pid", []byte(strconv.Itoa(os.Getpid())+"\n/data\n"), 0o644)
	for i := 0; i < 3e7; i++ { // burn a little CPU
		_ = i * i
	}
	if v := clusterCPU(dir); v <= 0 {
		t.Fatalf("cluster CPU %v", v)
	}
}
