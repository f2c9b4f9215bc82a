package srv

func helper(data string) string {
	m := &Mailer{}
	return m.Send(data)
}
