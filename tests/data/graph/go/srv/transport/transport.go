package transport

type Transport struct {
	Host string
}

func New(host string) *Transport {
	return &Transport{Host: host}
}

func (t *Transport) Send(data string) int {
	return t.write(data)
}
