package srv

// An interface: a type implements it by having its methods (half has one of two).
type middleware interface {
	Middleware(h string) string
	Name() string
}

type logging struct{}

func (l *logging) Middleware(h string) string { return h }

func (l *logging) Name() string { return "log" }

type half struct{}

func (x *half) Middleware(h string) string { return h }

type chain struct {
	mws []middleware
}

func (c *chain) apply(h string) string {
	for i := range c.mws {
		h = c.mws[i].Middleware(h)
	}
	return h
}
