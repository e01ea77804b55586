package config_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mentat-spec/mentat-spec/engine/config"
	"github.com/mentat-spec/mentat-spec/engine/redact"
)

// Loading a spec hands the values of its sensitive variables, whatever
// their type and however set, to the redactor; a value too short to
// redact is refused at the variable.
func TestSensitiveValuesRegistered(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.hcl")
	src := `variable "tok" {
  type      = string
  sensitive = true
}
variable "keys" {
  type      = map(string)
  default   = { reg-key-one = "reg-map-value" }
  sensitive = true
}
variable "pin" {
  type      = number
  default   = 918273
  sensitive = true
}
variable "plain" {
  type    = string
  default = "reg-plain-value"
}
locals {
  shout = upper(var.tok)
  parts = split("-", var.tok)
  other = upper(var.plain)
}
`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := config.Load([]string{path}, config.Options{Env: []string{config.EnvVarPrefix + "tok=reg-env-token"}})
	if diags.HasErrors() {
		t.Fatal(diags.Error())
	}
	for _, v := range []string{"reg-env-token", "reg-key-one", "reg-map-value", "918273", "REG-ENV-TOKEN"} {
		if !redact.Sensitive(v) {
			t.Errorf("%q is not redacted", v)
		}
	}
	// Neither a value that is not sensitive, nor what a function makes of
	// it, nor the elements of a collection computed from a sensitive one.
	for _, v := range []string{"reg-plain-value", "REG-PLAIN-VALUE", "token"} {
		if redact.Contains(v) {
			t.Errorf("%q is redacted", v)
		}
	}
	if env := strings.Join(redact.Environ(), "\n"); !strings.Contains(env, config.EnvVarPrefix+"tok=reg-env-token") {
		t.Errorf("commands' environment lacks the sensitive string")
	}

	_, diags = config.Load([]string{path}, config.Options{Env: []string{}, Vars: []config.VarArg{setVar("tok", "abc")}})
	if !diags.HasErrors() || !strings.Contains(diags.Error(), "Sensitive value too short") || !strings.Contains(diags.Error(), "s.hcl:1,1") {
		t.Errorf("a 3-character sensitive value: %v", diags)
	}
	if strings.Contains(diags.Error(), "abc") {
		t.Errorf("the refusal prints the value: %v", diags)
	}
}
