package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
)

//go:embed report.css
var reportCSS string

// Page is one self-contained HTML page in the report's style (inline
// CSS, no script, no network): a title, a header line, a table of
// contents and its sections. compare's page is one too.
type Page struct {
	Title    string
	Meta     template.HTML // under the title, whole elements; may be empty
	Sections []Section
}

// Section is one part of a page, listed in its table of contents.
type Section struct {
	ID, Title string
	Body      template.HTML
}

// Table is an HTML table; Right marks numeric (right-aligned) columns.
type Table struct {
	Head  []string
	Right []bool
	Rows  [][]string
}

// The page's layout. Every literal newline is output: the templates are
// written as the page reads.
const pageTemplates = `{{define "page"}}<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
{{css}}</style>
</head>
<body>
<header><h1>{{.Title}}</h1>{{.Meta}}</header>
<nav><ul>{{range .Sections}}<li><a href="#{{.ID}}">{{.Title}}</a></li>{{end}}</ul></nav>
<main>
{{range .Sections}}<section id="{{.ID}}">
<h2>{{.Title}}</h2>
{{.Body}}</section>
{{end}}</main>
</body>
</html>
{{end}}
{{- define "table"}}<div class="scroll"><table>
<thead><tr>{{range $i, $h := .Head}}<th{{if num $.Right $i}} class="num"{{end}}>{{$h}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr>{{range $i, $c := .}}<td{{if num $.Right $i}} class="num"{{end}}>{{$c}}</td>{{end}}</tr>
{{end}}</tbody></table></div>
{{end}}`

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"css": func() template.CSS { return template.CSS(reportCSS) },
	"num": func(right []bool, i int) bool { return i < len(right) && right[i] },
}).Parse(pageTemplates))

// WritePage writes p.
func WritePage(w io.Writer, p Page) error {
	return page.ExecuteTemplate(w, "page", p)
}

// HTMLTable renders t for a section's body.
func HTMLTable(t Table) (template.HTML, error) { return Render(page, "table", t) }

// Render executes the template name of set into HTML for a section's
// body (html/template has escaped what data holds).
func Render(set *template.Template, name string, data any) (template.HTML, error) {
	var b bytes.Buffer
	if err := set.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("report: %s: %w", name, err)
	}
	return template.HTML(b.String()), nil
}
