package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
)

// fakeSecrets is a Secrets Manager endpoint on loopback speaking the JSON
// protocol of GetSecretValue: it answers from secrets, by name or ARN, and
// logs every request.
type fakeSecrets struct {
	*httptest.Server
	secrets map[string]fakeSecret // by SecretId; not changed once serving

	mu    sync.Mutex
	calls []secretsCall
}

// fakeSecret is a secret's value: SecretString, or SecretBinary when
// binary is set.
type fakeSecret struct {
	str    string
	binary []byte
}

type secretsCall struct {
	Target   string // the X-Amz-Target header
	SecretID string
	Auth     bool // the request was signed
}

func newFakeSecrets(t *testing.T, secrets map[string]fakeSecret) *fakeSecrets {
	t.Helper()
	f := &fakeSecrets{secrets: secrets}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeSecrets) serve(w http.ResponseWriter, r *http.Request) {
	var in struct{ SecretId string }
	_ = json.NewDecoder(r.Body).Decode(&in)
	c := secretsCall{Target: r.Header.Get("X-Amz-Target"), SecretID: in.SecretId, Auth: r.Header.Get("Authorization") != ""}
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()

	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	fail := func(code, msg string) {
		w.WriteHeader(http.StatusBadRequest)
		_ = json.NewEncoder(w).Encode(map[string]string{"__type": code, "Message": msg})
	}
	if c.Target != "secretsmanager.GetSecretValue" {
		fail("InvalidRequestException", "the fake knows GetSecretValue only")
		return
	}
	s, ok := f.secrets[in.SecretId]
	if !ok {
		fail("ResourceNotFoundException", "Secrets Manager can't find the specified secret.")
		return
	}
	out := map[string]any{"Name": in.SecretId, "VersionId": "v1", "VersionStages": []string{"AWSCURRENT"}}
	if s.binary != nil {
		out["SecretBinary"] = s.binary // base64, as encoding/json writes []byte
	} else {
		out["SecretString"] = s.str
	}
	_ = json.NewEncoder(w).Encode(out)
}

// client is a Secrets Manager client of the fake.
func (f *fakeSecrets) client() *secretsmanager.Client {
	return secretsmanager.New(secretsmanager.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(f.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("idemqtest", "idemqtest", ""),
	})
}

func (f *fakeSecrets) all() []secretsCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]secretsCall(nil), f.calls...)
}
