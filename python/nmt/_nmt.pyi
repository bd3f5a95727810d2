# stub: written below
