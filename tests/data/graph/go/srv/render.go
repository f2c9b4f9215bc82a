package srv

import "encoding/json"

// WriteJSON appends v, encoded, to the response.
func (c *Context) WriteJSON(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.out = append(c.out, b...)
	return nil
}

// JSON writes v with a status, through the package helper.
func (c *Context) JSON(code int, v any) error {
	c.Status(code)
	return WriteJSON(c, v)
}

// WriteJSON is the package helper of the same name: it writes v on c.
func WriteJSON(c *Context, v any) error {
	return c.WriteJSON(v)
}

// Recorder keeps what a handler wrote, for tests.
type Recorder struct {
	body []any
}

// WriteJSON records v.
func (r *Recorder) WriteJSON(v any) error {
	r.body = append(r.body, v)
	return nil
}

// JSONWriter is what a handler writes JSON to.
type JSONWriter interface {
	WriteJSON(v any) error
}

func serve(rec *Recorder, sinks map[string]JSONWriter) {
	c := new(Context)
	WriteJSON(c, "hello")
	c.WriteJSON("again")
	rec.WriteJSON("seen")
	for _, s := range sinks {
		s.WriteJSON("each")
	}
}
