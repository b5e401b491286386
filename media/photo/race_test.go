//go:build race

package photo

// The race detector slows image code ~10×: heavy tests trim their cases.
const raceEnabled = true
