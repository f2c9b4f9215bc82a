package srv

import (
	"strings"

	tr "example.com/srv/transport"
)

type Mailer struct{}

func (m *Mailer) Send(message string) string {
	return message
}

type Service struct {
	mailer *Mailer
	conn   *tr.Transport
}

func (s *Service) Run(data string) {
	s.mailer.Send(data)
	s.conn.Send(data)
	t := tr.New("h")
	t.Send(data)
	r := &tr.Retrying{}
	r.Send(data)
	helper(data)
	strings.ToUpper(data)
}
