package compare

import (
	"fmt"
	"slices"

	"github.com/mentat-spec/mentat-spec/engine/results"
)

// Rule is how a kind with files of its own (capacity) compares its rows
// of two loaded runs, registered from the kind's package at init. Rules
// run after the points and loads, in registration order.
type Rule struct {
	Name string
	// Compare adds to v what the rule finds: findings (Finding.Text says
	// one after its point), notes, the count of compared rows, and
	// through Undecide what it could not decide.
	Compare func(v *Verdict, oldRun, newRun *results.Run) error
	// UndecidedWhy names what kept the rule's rows from a verdict, for
	// the page's headline: "a capacity search found no capacity".
	UndecidedWhy string
}

var rules []Rule

// RegisterRule adds r to every comparison. A name registered twice, or a
// rule without a name or comparison, is a programming error: it panics,
// at init.
func RegisterRule(r Rule) {
	if r.Name == "" || r.Compare == nil {
		panic(fmt.Sprintf("compare: rule %+v lacks a name or comparison", r))
	}
	if slices.ContainsFunc(rules, func(x Rule) bool { return x.Name == r.Name }) {
		panic("compare: rule " + r.Name + " registered twice")
	}
	rules = append(rules, r)
}

// Undecide counts one row that rule could not decide: no verdict, which
// a gate must not read as a pass.
func (r *Verdict) Undecide(rule string) {
	if r.UndecidedRows == nil {
		r.UndecidedRows = map[string]int{}
	}
	r.UndecidedRows[rule]++
}

// applyRules runs every registered rule.
func applyRules(v *Verdict, oldRun, newRun *results.Run) error {
	for _, r := range rules {
		if err := r.Compare(v, oldRun, newRun); err != nil {
			return fmt.Errorf("compare %s: %w", r.Name, err)
		}
	}
	return nil
}

// ruleUndecidedWhy is the reason of the first rule with undecided rows.
func ruleUndecidedWhy(v Verdict) string {
	for _, r := range rules {
		if v.UndecidedRows[r.Name] > 0 {
			return r.UndecidedWhy
		}
	}
	return ""
}

// undecidedRows counts the rows the rules could not decide.
func (r Verdict) undecidedRows() int {
	n := 0
	for _, c := range r.UndecidedRows {
		n += c
	}
	return n
}
