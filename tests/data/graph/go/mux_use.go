package mux

func (m *Mux) Use() {
	m.uses++
}
