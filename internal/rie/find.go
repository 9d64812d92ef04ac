package rie

import (
	"fmt"
	"os"
	"path/filepath"
)

// BinPath is where `make rie` installs the emulator, from the module's
// root.
const BinPath = "bin/aws-lambda-rie"

// Hint says how to get the emulator.
const Hint = "run `make rie` (it builds the Lambda Runtime Interface Emulator into " + BinPath + ")"

// Find returns path made absolute, or an error with Hint when no file is
// there.
func Find(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(abs); err != nil {
		return "", fmt.Errorf("rie: no Lambda Runtime Interface Emulator at %s: %s", abs, Hint)
	}
	return abs, nil
}
