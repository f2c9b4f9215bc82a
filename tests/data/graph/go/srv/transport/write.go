package transport

func (t *Transport) write(data string) int {
	return len(data)
}

type Retrying struct {
	*Transport
}

func (r *Retrying) Close() error {
	return nil
}
