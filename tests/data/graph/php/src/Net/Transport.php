<?php

namespace App\Net;

class Transport
{
    public function __construct(private string $host)
    {
    }

    public function send(string $data): int
    {
        return $this->write($data);
    }

    public function write(string $data): int
    {
        return strlen($data) + strlen($this->host);
    }
}
