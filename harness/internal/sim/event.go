package sim

import "github.com/aws/aws-lambda-go/events"

// point is where an instance yields to the scheduler.
type point int

const (
	atRequest   point = iota // about to send a request to the store
	atRetry                  // a request was refused or its answer lost; about to send it again
	callStarted              // the provider received the request
	callRunning              // waiting for the provider's answer
	returned                 // the handler answered; the event source mapping has not acted on it
)

func (p point) String() string {
	return [...]string{"request", "retry", "call started", "call running", "returned"}[p]
}

// event is what an instance tells the scheduler: a yield, or its handler's
// return with the handler's answer.
type event struct {
	at   point
	resp events.SQSEventResponse
	err  error
}
