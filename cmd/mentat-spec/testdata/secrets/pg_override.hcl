# PostgreSQL types the parameter of a select list only when told.
query "name" {
  sql = <<-SQL
    SELECT n.v AS name, CAST(:tag AS TEXT) AS tag, '${var.tok}' AS lit
    FROM log_text u JOIN log_text n ON n.e = u.e AND n.a = (SELECT a FROM attrs WHERE ident = 'user/name')
    WHERE u.a = (SELECT a FROM attrs WHERE ident = 'user/email') AND u.v = :email
  SQL
}
