package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/aws/aws-lambda-go/events"
)

// request is a message body: the key (read by the handler) and the model
// request.
//
//	{"idempotency_key": "doc-4471-v9", "model": "gpt-4o-mini",
//	 "prompt": "Summarise ...", "system": "...", "max_tokens": 256, "temperature": 0.2}
type request struct {
	Model       string   `json:"model"`
	Prompt      string   `json:"prompt"`
	System      string   `json:"system,omitempty"`
	MaxTokens   *int     `json:"max_tokens,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
}

// errBadRequest is a body the worker cannot turn into a model request. It
// fails the record like any error: after the queue's max receives the
// message lands in the dead-letter queue, where it belongs.
var errBadRequest = errors.New("worker: bad request")

// work turns a message into one model request.
type work struct {
	provider *provider
}

// handle is the handler.Func: called once per idempotency key; its result,
// the completion as JSON, is stored with the key.
func (w *work) handle(ctx context.Context, msg events.SQSMessage) ([]byte, error) {
	var r request
	if err := json.Unmarshal([]byte(msg.Body), &r); err != nil {
		return nil, fmt.Errorf("%w: %w", errBadRequest, err)
	}
	if r.Model == "" || r.Prompt == "" {
		return nil, fmt.Errorf("%w: model and prompt are required", errBadRequest)
	}
	var msgs []chatMessage
	if r.System != "" {
		msgs = append(msgs, chatMessage{Role: "system", Content: r.System})
	}
	msgs = append(msgs, chatMessage{Role: "user", Content: r.Prompt})
	c, err := w.provider.complete(ctx, completionRequest{
		Model: r.Model, Messages: msgs, MaxTokens: r.MaxTokens, Temperature: r.Temperature,
	})
	if err != nil {
		return nil, err
	}
	return json.Marshal(c)
}
