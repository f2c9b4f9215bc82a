package mux

// A package at the top of the repository: its methods live in other files of it.
type Mux struct {
	uses int
}

type Other struct{}

func (o *Other) Use() {}

func NewMux() *Mux {
	return &Mux{}
}

func Serve() {
	m := NewMux()
	m.Use()
}
