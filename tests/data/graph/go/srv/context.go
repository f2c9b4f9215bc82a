package srv

// Context carries one request and the bytes written back.
type Context struct {
	out    []byte
	status int
}

// Status sets the response code.
func (c *Context) Status(code int) {
	c.status = code
}
