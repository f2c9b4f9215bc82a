package main

import "fmt"

// Greeter prints greetings.
type Greeter struct{ Name string }

// Greet says hello to someone by name.
func (g Greeter) Greet(who string) string {
	return fmt.Sprintf("hello %s from %s", who, g.Name)
}

func main() {
	g := Greeter{Name: "codeloupe"}
	fmt.Println(g.Greet("world"))
}
