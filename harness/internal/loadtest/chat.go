package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// Chat sends prompt as one user message to the OpenAI-compatible chat
// completions endpoint at baseURL (a Provider's URL), once, without
// retrying, and returns the answer's body: a stand-in for the model client
// of the function under test.
func Chat(ctx context.Context, baseURL, prompt string) ([]byte, error) {
	body, err := json.Marshal(map[string]any{
		"model":    "test-model",
		"messages": []map[string]string{{"role": "user", "content": prompt}},
	})
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("handlertest: provider answered HTTP %d: %s", resp.StatusCode, raw)
	}
	return raw, nil
}
