// Package k8scheck reads a Kubernetes manifest into the API's own Go
// types, refusing any field those types do not have, and checks what the
// API server and the kubelet would refuse or get wrong that no schema
// says: names, selectors against labels, completions against the pods
// wanted, keys of Secrets and ConfigMaps where they are referenced, and
// the ports a Service sends to. It holds Jobs (batch/v1), Services,
// Secrets and ConfigMaps (v1): what `export k8s` writes and refers to.
package k8scheck

import (
	stdjson "encoding/json"
	"errors"
	"fmt"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/json"
)

// Manifest is the objects of one or more manifests, in the API's types.
type Manifest struct {
	Services   []corev1.Service
	Jobs       []batchv1.Job
	Secrets    []corev1.Secret
	ConfigMaps []corev1.ConfigMap
}

// Add appends o's objects to m.
func (m *Manifest) Add(o *Manifest) {
	m.Services = append(m.Services, o.Services...)
	m.Jobs = append(m.Jobs, o.Jobs...)
	m.Secrets = append(m.Secrets, o.Secrets...)
	m.ConfigMaps = append(m.ConfigMaps, o.ConfigMaps...)
}

// list is a v1 List as kubectl reads it; its items are decoded by kind.
type list struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []stdjson.RawMessage `json:"items"`
}

// Decode reads one JSON object or a v1 List of them. Unknown or
// duplicated fields, and kinds this package does not hold, are errors:
// the API server would drop an unknown field silently (or refuse it under
// strict field validation), so a manifest that has one does not do what
// it says.
func Decode(data []byte) (*Manifest, error) {
	var tm metav1.TypeMeta
	if err := json.UnmarshalCaseSensitivePreserveInts(data, &tm); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	m := &Manifest{}
	if tm.Kind != "List" {
		return m, m.decodeItem(data, "")
	}
	var l list
	if err := strict(data, &l, "List"); err != nil {
		return nil, err
	}
	if l.APIVersion != "v1" {
		return nil, fmt.Errorf("List: apiVersion %q, want v1", l.APIVersion)
	}
	var errs []error
	for i, raw := range l.Items {
		errs = append(errs, m.decodeItem(raw, fmt.Sprintf("items[%d]: ", i)))
	}
	return m, errors.Join(errs...)
}

func (m *Manifest) decodeItem(data []byte, where string) error {
	var tm metav1.TypeMeta
	if err := json.UnmarshalCaseSensitivePreserveInts(data, &tm); err != nil {
		return fmt.Errorf("%snot a JSON object: %w", where, err)
	}
	what := where + tm.APIVersion + " " + tm.Kind
	switch tm.APIVersion + " " + tm.Kind {
	case "v1 Service":
		var o corev1.Service
		err := strict(data, &o, what)
		m.Services = append(m.Services, o)
		return err
	case "batch/v1 Job":
		var o batchv1.Job
		err := strict(data, &o, what)
		m.Jobs = append(m.Jobs, o)
		return err
	case "v1 Secret":
		var o corev1.Secret
		err := strict(data, &o, what)
		m.Secrets = append(m.Secrets, o)
		return err
	case "v1 ConfigMap":
		var o corev1.ConfigMap
		err := strict(data, &o, what)
		m.ConfigMaps = append(m.ConfigMaps, o)
		return err
	}
	return fmt.Errorf("%s: not a kind this check holds (v1 Service, Secret, ConfigMap; batch/v1 Job)", what)
}

// strict decodes as the API server does with strict field validation:
// field names match case-sensitively, unknown and duplicate ones are errors.
func strict(data []byte, v any, what string) error {
	serrs, err := json.UnmarshalStrict(data, v, json.DisallowDuplicateFields, json.DisallowUnknownFields)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if len(serrs) > 0 {
		msgs := make([]string, len(serrs))
		for i, e := range serrs {
			msgs[i] = e.Error()
		}
		return fmt.Errorf("%s: %s", what, strings.Join(msgs, "; "))
	}
	return nil
}
