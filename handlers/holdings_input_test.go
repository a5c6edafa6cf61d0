package handlers

import "testing"

// The holdings input tests moved with the parsers to internal/portfolio.

func TestPasswordHashing(t *testing.T) {
	h, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !CheckPassword(h, "correct horse battery") || CheckPassword(h, "correct horse batterx") || CheckPassword("garbage", "x") {
		t.Fatal("password check wrong")
	}
	h2, _ := HashPassword("correct horse battery")
	if h == h2 {
		t.Fatal("salt not random")
	}
}
