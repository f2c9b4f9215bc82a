package srv

type Grid struct{ cells int }

func (g *Grid) Place(x, y int) { g.cells += x * y }

type Stack struct{ items []string }

func (s *Stack) Place(item string) { s.items = append(s.items, item) }

type Printer struct{}

func (p *Printer) Print(format string, args ...any) {}

type Label struct{}

func (l *Label) Print(text string) {}

func arrange(boards map[string]*Grid, piles map[string]*Stack, out map[string]*Printer) {
	for _, b := range boards {
		b.Place(1, 2)
	}
	for _, p := range piles {
		p.Place("top")
	}
	for _, o := range out {
		o.Print("%d %d", 1, 2)
		o.Print("plain")
	}
}
