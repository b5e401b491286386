//go:build !race

package photo

const raceEnabled = false
