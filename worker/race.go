//go:build race

package worker

// raceBuild: the race detector maps gigabytes of shadow memory, which a
// data-segment limit would refuse, so race builds limit only CPU time.
const raceBuild = true
