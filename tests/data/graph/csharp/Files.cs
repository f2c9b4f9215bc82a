using System.IO;

namespace App.Files
{
    public class Dialog
    {
        public void Close() { }
    }

    public class Store<T>
    {
        public void Load(string path)
        {
            StreamReader rdr = new StreamReader(path);
            rdr.Close();
        }

        public void Keep(T item)
        {
            T copy = item;
            copy.Close();
        }
    }
}
