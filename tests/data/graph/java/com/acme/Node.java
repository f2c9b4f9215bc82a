package com.acme;

import com.acme.select.Collector;

// a class with an outside base (Cloneable): a name it uses bare may be a member inherited
// from there, but an imported class of that name is what it is
public class Node implements Cloneable {
    public int count() {
        return Collector.count(null, new String[0]);
    }
}
