//go:build !race

package worker

const raceBuild = false
