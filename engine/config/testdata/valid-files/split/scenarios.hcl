scenario "point_lookup" {
  read {
    query = query.q1
  }
  check "names" {
    query         = query.q1
    for_each      = truth.users
    params        = { email = each.value["user/email"] }
    expect_values = { name = each.value["user/name"] }
  }
}
