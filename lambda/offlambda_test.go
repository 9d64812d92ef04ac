package main

import (
	"errors"
	"net/http"
	"testing"

	"github.com/idemq/idemq/consumer"
	"github.com/idemq/idemq/worker"
)

// A program that would serve Lambda where there is none says so, and
// what to set, instead of aws-lambda-go's list of variables; one that
// serves a queue or an address, or runs in Lambda, starts.
func TestOffLambda(t *testing.T) {
	t.Parallel()
	none := func(string) string { return "" }
	inLambda := func(name string) string {
		if name == "AWS_LAMBDA_RUNTIME_API" {
			return "127.0.0.1:9001"
		}
		return ""
	}
	const frontDoorText = "not in Lambda (AWS_LAMBDA_RUNTIME_API is unset) and no IDEMQ_FRONTDOOR_ADDR: set it to serve HTTP here, or run in Lambda"
	for _, tc := range []struct {
		name   string
		p      program
		getenv func(string) string
		want   string
	}{
		{"worker or dispatcher, no queue", program{}, none, worker.ErrNotLambda.Error()},
		{"front door, no address", program{frontDoor: http.NotFoundHandler()}, none, frontDoorText},
		{"consumer", program{consumer: &consumer.Consumer{}}, none, ""},
		{"front door on an address", program{frontDoor: http.NotFoundHandler(), frontDoorAddr: "127.0.0.1:8080"}, none, ""},
		{"in Lambda", program{}, inLambda, ""},
	} {
		err := offLambda(tc.p, tc.getenv)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v, want none", tc.name, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want):
			t.Errorf("%s: %v\nwant %s", tc.name, err, tc.want)
		}
	}
	if err := offLambda(program{}, none); !errors.Is(err, worker.ErrNotLambda) {
		t.Errorf("%v is not worker.ErrNotLambda", err)
	}
}
