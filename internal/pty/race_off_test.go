//go:build !race

package pty

const raceEnabled = false
