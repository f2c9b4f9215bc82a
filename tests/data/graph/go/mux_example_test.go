package mux_test

import (
	"testing"

	"example.com/lib/mux"
)

// An external test package: it imports the package of its own folder by the module's
// import path, which no folder of the repository is named after.
func TestServe(t *testing.T) {
	m := mux.NewMux()
	m.Use()
	mux.Serve()
}
