SELECT :email -- shared
