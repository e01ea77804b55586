# A spec split over several files: a directory is read as one spec, its
# *.hcl and *.hcl.json files in name order.

variable "scales" {
  type    = list(string)
  default = ["xs"]
}

locals {
  sql = "sql"
}

matrix {
  scales = var.scales
}
