package srv

// Router and Route both have PathPrefix: the traps for a call on an unknown receiver.
type Router struct {
	routes []*Route
}

type Route struct {
	prefix string
}

func NewRouter() *Router {
	return &Router{}
}

func (r *Router) PathPrefix(tpl string) *Route {
	route := &Route{}
	r.routes = append(r.routes, route)
	return route.PathPrefix(tpl)
}

func (r *Route) PathPrefix(tpl string) *Route {
	r.prefix = tpl
	return r
}

func (r *Route) Subrouter() *Router {
	return &Router{}
}
