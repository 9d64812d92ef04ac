package main

import (
	"errors"
	"fmt"

	"github.com/idemq/idemq/idemqenv"
)

// loadConfig reads the environment through getenv (os.Getenv) as every
// program of idemq does (idemqenv.Read: every variable, its check and its
// default, declared once there), with the reference worker's own
// requirement: in worker mode, its model provider's URL. It reports every
// bad or missing variable at once.
func loadConfig(getenv func(string) string) (idemqenv.Settings, error) {
	s, err := idemqenv.Read(getenv)
	errs := []error{err}
	if s.Program == idemqenv.Worker && s.Provider.URL == "" && getenv("IDEMQ_PROVIDER_URL") == "" {
		errs = append(errs, fmt.Errorf("IDEMQ_PROVIDER_URL is required: the model provider's OpenAI-compatible base URL, like https://api.openai.com/v1"))
	}
	return s, errors.Join(errs...)
}
