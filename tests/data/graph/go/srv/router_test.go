package srv

import "testing"

func TestSubrouter(t *testing.T) {
	router := NewRouter()
	sub := router.PathPrefix("/sub/").Subrouter()
	sub.PathPrefix("/a")
	route := new(Route).PathPrefix("/b")
	new(Route).PathPrefix("/c").Subrouter()
	if route == nil {
		t.Fatal("no route")
	}
}
