// Package transport sends messages over HTTP and to a log.
package transport

import (
	"fmt"
	stdlog "log"
	"net/http"
	_ "net/http/pprof"
)

import "strings"

// Sender is anything that can send a message.
type Sender interface {
	Send(msg string) error
}

// Client sends messages to a server.
type Client struct {
	base string
	http *http.Client
}

// Logger writes messages to the log.
type Logger struct {
	prefix string
}

type (
	// Handler reacts to a message.
	Handler func(msg string)
	// Pair holds two senders.
	Pair struct {
		first, second Sender
	}
)

// NewClient builds a client for the base URL.
func NewClient(base string) *Client {
	return &Client{base: strings.TrimRight(base, "/"), http: &http.Client{}}
}

// Send posts the message to the server.
func (c *Client) Send(msg string) error {
	url := c.url("/send")
	resp, err := c.http.Post(url, "text/plain", strings.NewReader(msg))
	if err != nil {
		return fmt.Errorf("send: %w", err)
	}
	return resp.Body.Close()
}

func (c *Client) url(path string) string {
	return c.base + path
}

// Send writes the message to the log.
func (l Logger) Send(msg string) error {
	stdlog.Printf("%s%s", l.prefix, msg)
	return nil
}

// Broadcast sends to every sender and collects the errors.
func Broadcast(senders []Sender, msg string) []error {
	var errs []error
	report := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	for _, s := range senders {
		report(s.Send(msg))
	}
	return errs
}

func main() {
	c := NewClient("http://localhost")
	l := Logger{prefix: "> "}
	c.Send("hello")
	l.Send("hello")
	errs := Broadcast([]Sender{c, l}, "bye")
	fmt.Println(len(errs))
	go func() {
		_ = c.Send("async")
	}()
}

var defaultClient = NewClient("http://example.com")
